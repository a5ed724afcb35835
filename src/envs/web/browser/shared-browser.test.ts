import { describe, expect, it } from 'vitest';
import {
  acquireSharedBrowser,
  sharedBrowserHolders,
  sharedBrowserLaunches,
  sharedBrowserPid,
} from './shared-browser.ts';

describe('the shared browser', () => {
  it('leases asking at once with no browser running share one launch', async () => {
    expect(sharedBrowserHolders()).toBe(0);
    const leases = [0, 1, 2, 3].map(() => acquireSharedBrowser());
    try {
      const browsers = await Promise.all(leases.map((l) => l.browser()));
      expect(sharedBrowserLaunches()).toBe(1);
      expect(new Set(browsers).size).toBe(1);
      expect(await sharedBrowserPid()).toBeGreaterThan(0);
    } finally {
      await Promise.all(leases.map((l) => l.release()));
    }
    expect(await sharedBrowserPid()).toBeUndefined();
  });

  it('after a crash, callers at once share one relaunch', async () => {
    const leases = [0, 1, 2].map(() => acquireSharedBrowser());
    try {
      const first = await leases[0]?.browser();
      const launched = sharedBrowserLaunches();
      process.kill((await sharedBrowserPid()) as number, 'SIGKILL');
      for (let i = 0; i < 100 && first?.isConnected(); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const browsers = await Promise.all(leases.map((l) => l.browser()));
      expect(sharedBrowserLaunches() - launched).toBe(1);
      expect(new Set(browsers).size).toBe(1);
      expect(browsers[0]).not.toBe(first);
      expect(browsers[0]?.isConnected()).toBe(true);
    } finally {
      await Promise.all(leases.map((l) => l.release()));
    }
  });
});
