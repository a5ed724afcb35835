/**
 * An in-process OpenAI-compatible server for tests and benchmarks: /v1/chat/completions,
 * /v1/embeddings and /v1/models on 127.0.0.1, with scripted faults (late answers, error statuses
 * with Retry-After, dropped connections, malformed or truncated JSON) and a server that can refuse
 * json_schema as older ones do. It records every request and the tokens it reported, so tests can
 * check a client's counters against what really happened.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Rng } from '../../core/rng.ts';
import type { JsonSchema } from '../structured.ts';
import { exampleOf } from './schema-example.ts';

/** A fault applied to one upcoming POST request, in the order injected. */
export type FakeFault =
  /** Answer `ms` late (on top of the server's latency). */
  | { kind: 'delay'; ms: number }
  /** Answer with this HTTP status, e.g. 500, or 429 with `retryAfter` ("1" seconds). */
  | { kind: 'status'; status: number; retryAfter?: string; message?: string }
  /** Destroy the socket without answering. */
  | { kind: 'drop' }
  /** Chat: Python-style quotes instead of JSON's. Embeddings: vectors one dimension short. */
  | { kind: 'malformed' }
  /** Chat: the first half of the answer, with finish_reason "length". */
  | { kind: 'truncated' };

/** A chat request as the fake server received it. */
export interface FakeChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: { type: string; json_schema?: { name: string; schema: JsonSchema } };
  max_tokens?: number;
  logprobs?: boolean;
  [option: string]: unknown;
}

/** A request the fake server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The fault this request got, if any. */
  fault?: FakeFault;
}

/** The fake server's models, API key, latency, JSON-schema support, replies and embedding size. */
export interface FakeOpenAiServerOptions {
  /** Models served; other names get 404. Default ['fake-model']. */
  models?: string[];
  /** When set, requests need `Authorization: Bearer <apiKey>` or get 401. */
  apiKey?: string;
  /** Delay before every answer, ms. Default 0. */
  latencyMs?: number;
  /** Whether response_format json_schema is accepted (else 400, as older servers). Default true. */
  jsonSchema?: boolean;
  /**
   * The assistant's answer. Default: an example value of the request's json_schema, `{}` in
   * json_object mode, else an echo of the last user message.
   */
  reply?: (request: FakeChatRequest) => string;
  /** Size of /v1/embeddings vectors. Default 16. */
  embeddingDimensions?: number;
}

/**
 * A local OpenAI-compatible server for tests: /v1/chat/completions and /v1/embeddings with scripted
 * replies, recorded requests and injectable faults.
 */
export class FakeOpenAiServer {
  /** Base URL with /v1, for `baseURL`. */
  readonly url: string;
  readonly requests: RecordedRequest[] = [];
  /** Tokens reported in successful chat answers. */
  readonly usage = { promptTokens: 0, completionTokens: 0 };
  private readonly faults: FakeFault[] = [];
  private inFlight = 0;
  private peak = 0;

  private constructor(
    private readonly http: ReturnType<typeof createServer>,
    private readonly options: FakeOpenAiServerOptions,
  ) {
    const { port } = http.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/v1`;
  }

  /** Starts the fake server on a free local port. */
  static async start(options: FakeOpenAiServerOptions = {}): Promise<FakeOpenAiServer> {
    const http = createServer();
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const server = new FakeOpenAiServer(http, options);
    http.on('request', (req, res) => {
      server.handle(req, res).catch((error: Error) => {
        if (!res.headersSent) json(res, 500, { error: { message: error.message } });
      });
    });
    return server;
  }

  /** Queues faults; each applies to one upcoming POST request. */
  inject(...faults: FakeFault[]): void {
    this.faults.push(...faults);
  }

  /** Most requests handled at once so far. */
  get maxInFlight(): number {
    return this.peak;
  }

  /** POST requests to a path suffix, e.g. 'chat/completions'. */
  posts(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path.endsWith(path));
  }

  /** Stops the server. */
  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const raw = await readBody(req);
    if (req.method === 'GET' && path === '/v1/models') {
      const data = this.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' }));
      return json(res, 200, { object: 'list', data });
    }
    if (req.method !== 'POST' || !['/v1/chat/completions', '/v1/embeddings'].includes(path))
      return json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw);
    } catch {
      return json(res, 400, { error: { message: 'request body is not JSON' } });
    }
    const fault = this.faults.shift();
    this.requests.push({
      method: 'POST',
      path,
      headers: req.headers,
      body,
      ...(fault && { fault }),
    });
    this.inFlight++;
    this.peak = Math.max(this.peak, this.inFlight);
    try {
      await this.respond(path, body, fault, req, res);
    } finally {
      this.inFlight--;
    }
  }

  private get models(): string[] {
    return this.options.models ?? ['fake-model'];
  }

  private async respond(
    path: string,
    body: Record<string, unknown>,
    fault: FakeFault | undefined,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const { apiKey } = this.options;
    if (apiKey && req.headers.authorization !== `Bearer ${apiKey}`)
      return json(res, 401, { error: { message: 'Incorrect API key provided.' } });
    if (!this.models.includes(String(body.model)))
      return json(res, 404, { error: { message: `The model '${body.model}' does not exist.` } });
    await wait((this.options.latencyMs ?? 0) + (fault?.kind === 'delay' ? fault.ms : 0), res);
    if (res.destroyed) return;
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = fault.retryAfter
        ? { 'retry-after': fault.retryAfter }
        : {};
      return json(
        res,
        fault.status,
        { error: { message: fault.message ?? `injected ${fault.status}` } },
        headers,
      );
    }
    if (path === '/v1/embeddings') return this.embeddings(body, fault, res);
    return this.chat(body as FakeChatRequest, fault, res);
  }

  private chat(body: FakeChatRequest, fault: FakeFault | undefined, res: ServerResponse): void {
    const format = body.response_format?.type;
    if (format === 'json_schema' && this.options.jsonSchema === false) {
      json(res, 400, {
        error: {
          message: "response_format.type 'json_schema' is not supported; use 'json_object'",
        },
      });
      return;
    }
    let content = this.options.reply ? this.options.reply(body) : defaultReply(body);
    let finishReason = 'stop';
    if (fault?.kind === 'malformed') content = content.replaceAll('"', "'");
    if (fault?.kind === 'truncated') {
      content = content.slice(0, Math.floor(content.length / 2));
      finishReason = 'length';
    }
    const promptTokens = body.messages.reduce((n, m) => n + words(m.content), 0);
    const completionTokens = Math.max(1, Math.ceil(content.length / 4));
    this.usage.promptTokens += promptTokens;
    this.usage.completionTokens += completionTokens;
    const logprobs = body.logprobs
      ? {
          content: (content.match(/[\s\S]{1,4}/g) ?? []).map((token) => ({
            token,
            logprob: -0.25,
            bytes: null,
            top_logprobs: [],
          })),
        }
      : null;
    json(res, 200, {
      id: `chatcmpl-${this.requests.length}`,
      object: 'chat.completion',
      created: 0,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content },
          finish_reason: finishReason,
          logprobs,
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    });
  }

  /** Deterministic, deliberately un-normalised vectors (clients must normalise). */
  private embeddings(
    body: Record<string, unknown>,
    fault: FakeFault | undefined,
    res: ServerResponse,
  ): void {
    const inputs = Array.isArray(body.input) ? body.input.map(String) : [String(body.input)];
    const size = (this.options.embeddingDimensions ?? 16) - (fault?.kind === 'malformed' ? 1 : 0);
    const data = inputs.map((text, index) => {
      const rng = new Rng(text);
      return {
        object: 'embedding',
        index,
        embedding: Array.from({ length: size }, () => (rng.float() * 2 - 1) * 3),
      };
    });
    const tokens = inputs.reduce((n, t) => n + words(t), 0);
    json(res, 200, {
      object: 'list',
      data,
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }
}

function defaultReply(body: FakeChatRequest): string {
  const format = body.response_format;
  if (format?.type === 'json_schema' && format.json_schema)
    return JSON.stringify(exampleOf(format.json_schema.schema));
  if (format?.type === 'json_object') return '{}';
  const lastUser = body.messages.filter((m) => m.role === 'user').at(-1);
  return `You said: ${lastUser?.content ?? ''}`;
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Waits `ms`, or less if the client goes away first. */
function wait(ms: number, res: ServerResponse): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
    res.on('close', done);
  });
}
