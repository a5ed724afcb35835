/** The server benches' HTTP client: a JSON POST on a given agent (keep-alive or not). */
import { type Agent, request } from 'node:http';

/** POSTs `body` as JSON through `agent`; resolves with the parsed answer, rejects on a non-200. */
export function postJson<T>(url: string, body: object, agent: Agent): Promise<T> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(text) as T)
            : reject(new Error(`${url}: HTTP ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
