/**
 * `fn` with its answers remembered, for a pure function of a string whose answers nobody mutates.
 * At most `limit` answers are kept; when full, all are forgotten at once (cheaper than an LRU,
 * and the working set of an episode refills it in a step).
 */
export function memoize<R>(fn: (key: string) => R, limit = 50_000): (key: string) => R {
  const answers = new Map<string, R>();
  return (key) => {
    if (answers.has(key)) return answers.get(key) as R;
    const answer = fn(key);
    if (answers.size >= limit) answers.clear();
    answers.set(key, answer);
    return answer;
  };
}
