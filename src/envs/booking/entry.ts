import type { EnvEntry } from '../env.ts';
import { BOOKING_MAX_STEPS, BookingEnv, makeBooking } from './booking-env.ts';
import { BookingExpert } from './expert.ts';
import { BOOKING } from './tasks.ts';

/** The `booking` env: a multi-step booking workflow with validated forms and a final confirm. */
export const bookingEntry: EnvEntry = {
  name: BOOKING,
  description:
    'booking workflow: set[field=value] on forms, click[label] for buttons and rooms; search, compare, book, fill in, confirm (final)',
  maxSteps: BOOKING_MAX_STEPS,
  make: (o) =>
    makeBooking({
      ...(o.split !== undefined && { split: o.split }),
      ...(o.maxSteps !== undefined && { maxSteps: o.maxSteps }),
    }),
  tasks: () => new BookingEnv(),
  expert: ({ epsilon }) => new BookingExpert({ epsilon }),
};
