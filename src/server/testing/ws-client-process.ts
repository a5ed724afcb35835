/**
 * A WebSocket client in a process of its own, for tests over a real socket: Node 20's built-in
 * WebSocket (undici's, an implementation independent of our server's) needs the
 * `--experimental-websocket` flag, which a test worker cannot turn on for itself.
 *
 * Usage: `node --experimental-websocket --import tsx ws-client-process.ts URL [TOKEN]`. Each line
 * on stdin is sent as a text message, except `:close`, which closes the connection. Each event
 * is printed as one JSON line: `{"open":true}`, `{"message":…}`, `{"close":{"code","reason"}}`,
 * `{"error":"…"}`. The process ends when the connection closes.
 */
import { createInterface } from 'node:readline';

const [url, token] = process.argv.slice(2);
if (!url) throw new Error('usage: ws-client-process.ts URL [TOKEN]');

const print = (event: unknown) => process.stdout.write(`${JSON.stringify(event)}\n`);
const ws = new WebSocket(
  url,
  token ? ({ headers: { authorization: `Bearer ${token}` } } as never) : undefined,
);
ws.onopen = () => print({ open: true });
ws.onmessage = (event) => print({ message: JSON.parse(String(event.data)) });
ws.onerror = (event) =>
  print({ error: String((event as { message?: unknown }).message ?? 'error') });
ws.onclose = (event) => {
  print({ close: { code: event.code, reason: event.reason } });
  process.exit(0);
};
await new Promise((resolve) => ws.addEventListener('open', resolve));
for await (const line of createInterface({ input: process.stdin })) {
  if (line === ':close') ws.close(1000, 'client done');
  else ws.send(line);
}
