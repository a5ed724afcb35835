import type { EnvEntry } from '../env.ts';
import { SupportDeskExpert } from './expert.ts';
import { makeSupportDesk, SUPPORT_DESK_MAX_STEPS, SupportDeskEnv } from './support-desk-env.ts';
import { SUPPORT_DESK } from './tasks.ts';

/** The `support-desk` env: a tool-calling customer-support desk with a hidden database. */
export const supportDeskEntry: EnvEntry = {
  name: SUPPORT_DESK,
  description:
    'tool-calling support desk: find_customer[name], get_customer[id], get_order[id], cancel_order[id], refund[id], answer[text]; JSON results',
  maxSteps: SUPPORT_DESK_MAX_STEPS,
  make: (o) =>
    makeSupportDesk({
      ...(o.split !== undefined && { split: o.split }),
      ...(o.maxSteps !== undefined && { maxSteps: o.maxSteps }),
    }),
  tasks: () => new SupportDeskEnv(),
  expert: ({ epsilon }) => new SupportDeskExpert({ epsilon }),
};
