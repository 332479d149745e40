/**
 * An OpenAI-compatible chat completions endpoint (vLLM, SGLang, any server of that API) with tool
 * calling. Only what the collector needs: one request, its assistant message back.
 */
export interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface ChatMessageIn {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string | null;
  readonly tool_calls?: readonly ChatToolCall[];
  readonly tool_call_id?: string;
  readonly name?: string;
}

export interface AssistantReply {
  readonly content: string;
  /** vLLM and SGLang put a reasoning model's thinking in `reasoning_content` (or `reasoning`). */
  readonly reasoning: string;
  readonly toolCalls: readonly ChatToolCall[];
  readonly finishReason: string;
}

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessageIn[];
  readonly tools?: readonly unknown[];
  readonly temperature: number;
  readonly maxTokens?: number;
  readonly seed?: number;
}

export class ChatEndpointError extends Error {
  constructor(
    message: string,
    /** Worth retrying: a 429, a 5xx, a dropped connection, a timeout. */
    readonly transient: boolean,
  ) {
    super(message);
  }
}

export class ChatEndpoint {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly timeoutMs: number,
  ) {}

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<AssistantReply> {
    const body = {
      model: request.model,
      messages: request.messages,
      temperature: request.temperature,
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools, tool_choice: 'auto' } : {}),
      ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
      ...(request.seed !== undefined ? { seed: request.seed } : {}),
    };
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]) : AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ChatEndpointError(`the model endpoint did not answer: ${String(error)}`, true);
    }
    const text = await response.text();
    if (!response.ok) {
      throw new ChatEndpointError(
        `the model endpoint answered ${response.status}: ${text.slice(0, 500)}`,
        response.status === 429 || response.status >= 500,
      );
    }
    let parsed: { choices?: Array<{ message?: Record<string, unknown>; finish_reason?: string }> };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new ChatEndpointError(`the model endpoint's answer is not JSON: ${text.slice(0, 200)}`, false);
    }
    const choice = parsed.choices?.[0];
    const message = choice?.message;
    if (!message) throw new ChatEndpointError('the model endpoint answered no choice', false);
    const toolCalls = Array.isArray(message['tool_calls']) ? (message['tool_calls'] as ChatToolCall[]) : [];
    const reasoning = message['reasoning_content'] ?? message['reasoning'];
    return {
      content: typeof message['content'] === 'string' ? message['content'] : '',
      reasoning: typeof reasoning === 'string' ? reasoning : '',
      toolCalls: toolCalls.map((call, i) => ({
        id: call.id || `call_${i}`,
        type: 'function',
        function: { name: call.function?.name ?? '', arguments: call.function?.arguments ?? '{}' },
      })),
      finishReason: choice.finish_reason ?? '',
    };
  }
}
