import { basename } from 'node:path';
import type {
  ChatHistoryItem,
  Llama,
  LlamaChat,
  LlamaContext,
  LlamaGrammar,
  LlamaModel,
} from 'node-llama-cpp';
import type { BackendAnswer, BackendRequest, ChatBackend } from './backend.ts';
import type { ChatMessage, FinishReason } from './client.ts';
import { LlmError, LlmRequestError } from './errors.ts';
import { toGbnfJsonSchema } from './gbnf-schema.ts';
import { ConcurrencyLimiter } from './limiter.ts';
import { type LlamaGpu, loadGguf } from './llama-cpp-loader.ts';
import { type ResilientClientOptions, ResilientLlmClient } from './resilient-client.ts';
import type { JsonSchema } from './structured.ts';

export interface LlamaCppBackendOptions {
  /** Path of a local GGUF model file. */
  gguf: string;
  /** CPU threads for evaluation. Default: node-llama-cpp's (the machine's math cores). */
  threads?: number;
  /** Context window per sequence, tokens. Default: the model's, at most 4096. */
  contextSize?: number;
  /** Sequences evaluated in parallel in one context, and so the client's concurrency. Default 1. */
  sequences?: number;
  /** Default 'auto': the best GPU found, else the CPU. */
  gpu?: LlamaGpu;
}

/** Which GGUF file to run, and the shared client settings (retries, limits, cache, prices). */
export interface LlamaCppClientOptions
  extends LlamaCppBackendOptions,
    Omit<ResilientClientOptions, 'maxConcurrency' | 'limiter'> {}

/**
 * A local GGUF model run in-process by llama.cpp (through node-llama-cpp), as an
 * {@link LlmClient}. Structured output is enforced by a grammar built from the JSON Schema, so
 * even a weak model answers parseable JSON. The model and its context load once and serve every
 * call; close() frees them.
 */
export class LlamaCppClient extends ResilientLlmClient {
  /** Loads a GGUF model in-process (needs the optional node-llama-cpp package). */
  static async load(options: LlamaCppClientOptions): Promise<LlamaCppClient> {
    const backend = await LlamaCppBackend.load(options);
    return new LlamaCppClient(backend, { ...options, maxConcurrency: backend.sequences });
  }
}

/** One generation on a pooled context sequence of a loaded model. */
export class LlamaCppBackend implements ChatBackend {
  readonly kind = 'llama-cpp';
  readonly server: string;
  readonly model: string;
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  private readonly idle: LlamaChat[];
  private readonly pool: ConcurrencyLimiter;

  private constructor(
    path: string,
    private readonly llama: Llama,
    private readonly loaded: LlamaModel,
    private readonly context: LlamaContext,
    chats: LlamaChat[],
  ) {
    this.server = path;
    this.model = basename(path);
    this.idle = chats;
    // A chat returns to the pool only when its generation has really ended (not when a deadline
    // gave up on it), so a sequence is never shared by two generations.
    this.pool = new ConcurrencyLimiter(chats.length);
  }

  static async load(options: LlamaCppBackendOptions): Promise<LlamaCppBackend> {
    const { lib, llama, model } = await loadGguf(options.gguf, options.gpu);
    const sequences = options.sequences ?? 1;
    const context = await model.createContext({
      contextSize: options.contextSize ?? Math.min(model.trainContextSize, 4096),
      sequences,
      ...(options.threads !== undefined && { threads: options.threads }),
    });
    const chats = Array.from(
      { length: sequences },
      () =>
        new lib.LlamaChat({ contextSequence: context.getSequence(), autoDisposeSequence: false }),
    );
    return new LlamaCppBackend(options.gguf, llama, model, context, chats);
  }

  get sequences(): number {
    return this.pool.maxConcurrency;
  }

  async complete(request: BackendRequest): Promise<BackendAnswer> {
    const grammar = request.responseSchema && (await this.grammar(request.responseSchema.schema));
    return this.pool.run(
      async () => {
        const chat = this.idle.pop() as LlamaChat;
        try {
          const before = chat.sequence.tokenMeter.getState();
          const result = await chat.generateResponse(toHistory(request.messages), {
            ...(grammar && { grammar }),
            maxTokens: request.maxTokens,
            temperature: request.temperature,
            topP: request.topP,
            seed: request.seed,
            ...(request.stop && { customStopTriggers: request.stop }),
            signal: request.signal,
          });
          const used = chat.sequence.tokenMeter.diff(before);
          return {
            text: result.response,
            finishReason: finishReason(result.metadata.stopReason),
            usage: { promptTokens: used.usedInputTokens, completionTokens: used.usedOutputTokens },
          };
        } catch (error) {
          if (request.signal.aborted) throw error;
          throw new LlmError(`${this.server}: llama.cpp failed: ${(error as Error).message}`, {
            cause: error,
          });
        } finally {
          this.idle.push(chat);
        }
      },
      request.signal,
      this.server,
    );
  }

  async close(): Promise<void> {
    for (const chat of this.idle) chat.dispose();
    await this.context.dispose();
    await this.loaded.dispose();
  }

  /** Grammars are compiled once per schema: callers reuse a handful of schemas many times. */
  private grammar(schema: JsonSchema): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (!grammar) {
      grammar = this.llama
        .createGrammarForJsonSchema(toGbnfJsonSchema(schema) as never)
        .catch((error: Error) => {
          this.grammars.delete(key);
          throw new LlmRequestError(
            `${this.server}: cannot build a grammar for the schema (${error.message}). Simplify the schema.`,
          );
        });
      this.grammars.set(key, grammar);
    }
    return grammar;
  }
}

/** Our messages as node-llama-cpp's history, ending with the empty model turn to generate. */
function toHistory(messages: ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((m) =>
    m.role === 'assistant'
      ? { type: 'model', response: [m.content] }
      : { type: m.role, text: m.content },
  );
  history.push({ type: 'model', response: [] });
  return history;
}

const STOPS = new Set(['eogToken', 'stopGenerationTrigger', 'customStopTrigger']);

function finishReason(stopReason: string): FinishReason {
  if (stopReason === 'maxTokens') return 'length';
  return STOPS.has(stopReason) ? 'stop' : 'other';
}
