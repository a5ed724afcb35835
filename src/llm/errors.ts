/**
 * Every way an LLM or embedding call can fail, as one class each under {@link LlmError}, so a
 * rollout can catch `LlmError` and truncate the episode instead of crashing. Messages name the
 * server (a URL, a GGUF path or an AI SDK provider) and the likely fix.
 */
import { DreamGymError } from '../core/errors.ts';

export class LlmError extends DreamGymError {
  override name = 'LlmError';
  /** Whether sending the same request again may succeed (timeouts, 429, 5xx, dropped links). */
  readonly retryable: boolean = false;
  /** Requests sent before this error was given up on (set by the retry loop). */
  attempts = 1;

  /** Records how many attempts were made and says so in the message. */
  gaveUpAfter(attempts: number): this {
    this.attempts = attempts;
    if (attempts > 1) this.message += ` (gave up after ${attempts} attempts)`;
    return this;
  }
}

/** No answer within the per-request timeout. */
export class LlmTimeoutError extends LlmError {
  override name = 'LlmTimeoutError';
  override readonly retryable = true;
  constructor(
    readonly server: string,
    readonly timeoutMs: number,
  ) {
    super(
      `${server}: no answer within ${timeoutMs} ms. Raise timeoutMs if the model is slow, or lower maxConcurrency if the server is overloaded.`,
    );
  }
}

/** 429: the server asks us to slow down. */
export class LlmRateLimitError extends LlmError {
  override name = 'LlmRateLimitError';
  override readonly retryable = true;
  constructor(
    readonly server: string,
    /** How long the server asked us to wait (Retry-After), when it said. */
    readonly retryAfterMs: number | undefined,
    detail: string,
  ) {
    super(
      `${server}: rate limited (429)${detail ? `: ${detail}` : ''}. Lower maxConcurrency or raise retry.maxRetries.`,
    );
  }
}

/** 5xx (or 408/409): the server failed; the same request may work a moment later. */
export class LlmServerError extends LlmError {
  override name = 'LlmServerError';
  override readonly retryable = true;
  constructor(
    readonly server: string,
    readonly status: number,
    detail: string,
  ) {
    super(
      `${server}: server error ${status}${detail ? `: ${detail}` : ''}. The server may be overloaded or restarting; check its logs.`,
    );
  }
}

/** The connection could not be made or was dropped before an answer came. */
export class LlmConnectionError extends LlmError {
  override name = 'LlmConnectionError';
  override readonly retryable = true;
  constructor(
    readonly server: string,
    detail: string,
    /** The likely fix; the default suits an OpenAI-compatible server. */
    fix = 'Check that the server is running and that the URL, including /v1, is right.',
  ) {
    super(`${server}: connection failed (${detail}). ${fix}`);
  }
}

/** 401/403: the API key is missing, wrong or lacks access. */
export class LlmAuthError extends LlmError {
  override name = 'LlmAuthError';
  constructor(
    readonly server: string,
    readonly status: number,
    detail: string,
    /** The likely fix; the default suits an OpenAI-compatible server. */
    fix = 'Pass the right key with --api-key or OPENAI_API_KEY (local servers usually accept any key).',
  ) {
    super(`${server}: the API key was rejected (${status})${detail ? `: ${detail}` : ''}. ${fix}`);
  }
}

/** 404: the server does not serve this model (or the URL lacks its /v1 prefix). */
export class LlmModelNotFoundError extends LlmError {
  override name = 'LlmModelNotFoundError';
  constructor(
    readonly server: string,
    readonly model: string,
    /** Models the server lists, when it could be asked. */
    readonly available: readonly string[] | undefined,
    /** The likely fix; the default suits an OpenAI-compatible server. */
    fix?: string,
  ) {
    const served = available?.length ? ` It serves: ${available.join(', ')}.` : '';
    const openAiFix = `${served ? '' : ' List its models with GET /v1/models.'} If the model is right, check that the URL ends with /v1.`;
    super(`${server}: no model "${model}" (404).${served}${fix ? ` ${fix}` : openAiFix}`);
  }
}

/** Another 4xx: the server refuses this request as it is; sending it again will not help. */
export class LlmBadRequestError extends LlmError {
  override name = 'LlmBadRequestError';
  constructor(
    readonly server: string,
    readonly status: number,
    detail: string,
  ) {
    super(
      `${server}: request rejected (${status})${detail ? `: ${detail}` : ''}. Check maxTokens against the model's context length and that the server supports the options you set.`,
    );
  }
}

/** The caller's AbortSignal fired. */
export class LlmAbortedError extends LlmError {
  override name = 'LlmAbortedError';
  constructor(readonly server: string) {
    super(`${server}: the request was aborted by the caller's signal.`);
  }
}

/** What was wrong with a structured answer. */
export type OutputProblem = 'truncated' | 'invalid-json' | 'schema-mismatch';

/**
 * The model's answer did not parse or match the schema, even after the repair round. Callers
 * in a rollout turn this into a truncated episode.
 */
export class LlmOutputError extends LlmError {
  override name = 'LlmOutputError';
  constructor(
    readonly server: string,
    readonly problem: OutputProblem,
    /** The validation error shown to the model. */
    readonly detail: string,
    /** The last answer the model gave. */
    readonly text: string,
  ) {
    const fix =
      problem === 'truncated'
        ? 'Raise maxTokens or ask for a shorter answer.'
        : 'Simplify the schema, describe it in the prompt, or use a stronger model.';
    super(`${server}: unusable answer after one repair round (${problem}: ${detail}). ${fix}`);
  }
}

/** The request itself is malformed (no messages, a bad option); fix the calling code. */
export class LlmRequestError extends LlmError {
  override name = 'LlmRequestError';
}

/** A backend's package is not installed: `node-llama-cpp` (optional) or `ai` (a peer). */
export class LlmBackendMissingError extends LlmError {
  override name = 'LlmBackendMissingError';
  /** `message` says what cannot run and how to install it; the default is node-llama-cpp's. */
  constructor(
    readonly packageName: string,
    message = `${packageName} is not installed, so local GGUF models cannot run. Run "npm install ${packageName}" (it is an optional dependency: "npm ci --omit=optional" leaves it out), or point at an OpenAI-compatible server instead.`,
  ) {
    super(message);
  }
}

/** The GGUF file is missing or unreadable. */
export class LlmModelFileError extends LlmError {
  override name = 'LlmModelFileError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(
      `${path}: ${detail}. Download a GGUF model (e.g. a Q4_K_M quantisation of a small instruct model from a model hub) on a machine with network, copy it here and pass --gguf PATH.`,
    );
  }
}

/** An embedding server answered with vectors of the wrong number or size. */
export class EmbeddingShapeError extends LlmError {
  override name = 'EmbeddingShapeError';
}
