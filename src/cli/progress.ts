import cliProgress from 'cli-progress';

/**
 * A progress bar on stderr (stdout stays clean for results). Off when stderr is not a terminal,
 * e.g. in CI logs, where a bar would print thousands of lines.
 */
export function progressBar(total: number, label: string) {
  if (!process.stderr.isTTY) {
    return { tick: (_extra?: Record<string, string>) => {}, stop: () => {} };
  }
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {value}/{total} episodes · {eta_formatted} left · {status}`,
      stream: process.stderr,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { status: '' });
  return {
    tick: (extra: Record<string, string> = {}) => bar.increment(1, extra),
    stop: () => bar.stop(),
  };
}
