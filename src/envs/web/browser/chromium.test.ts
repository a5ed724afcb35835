import { describe, expect, it } from 'vitest';
import { BrowserNotFoundError, findChromium } from './chromium.ts';

const SHELL = '/usr/lib/chromium/chromium-headless-shell';
const FULL = '/usr/bin/chromium';
const only =
  (...present: string[]) =>
  (path: string) =>
    present.includes(path);

describe('findChromium', () => {
  it('drives the headless shell when a headless browser is wanted and both are installed', () => {
    expect(findChromium({}, { exists: only(SHELL, FULL) })).toBe(SHELL);
  });

  it('drives the full browser for a headed one, and when no headless shell is installed', () => {
    expect(findChromium({}, { headless: false, exists: only(SHELL, FULL) })).toBe(FULL);
    expect(findChromium({}, { exists: only(FULL) })).toBe(FULL);
  });

  it('takes DREAMGYM_CHROMIUM before any installed browser, and names the fix when it is missing', () => {
    const named = '/opt/chrome/chrome';
    expect(findChromium({ DREAMGYM_CHROMIUM: named }, { exists: only(named, SHELL) })).toBe(named);
    expect(() => findChromium({ DREAMGYM_CHROMIUM: named }, { exists: only(SHELL) })).toThrow(
      /DREAMGYM_CHROMIUM=\/opt\/chrome\/chrome does not exist.*apt-get install -y chromium-headless-shell/,
    );
  });

  it('says how to get one when no browser is installed', () => {
    expect(() => findChromium({}, { exists: only() })).toThrow(BrowserNotFoundError);
    expect(() => findChromium({}, { exists: only() })).toThrow(/npx playwright install chromium/);
  });
});
