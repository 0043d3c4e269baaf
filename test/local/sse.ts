/** The playground's server-sent events, read as the page reads them: `hello` first, then `message` and `view`. */

export interface PlaygroundMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: unknown[];
  ephemeral: boolean;
  at: number;
}

export interface Hello {
  user: { id: string; name: string };
  /** The command picker's commands and usage hints. */
  commands: { command: string; description: string; usageHint: string }[];
  messages: PlaygroundMessage[];
}

export interface PlaygroundView {
  via: 'views.open' | 'views.push' | 'views.update';
  view: { id: string; type: string; title: unknown; blocks: unknown[] };
}

export interface PlaygroundEvents {
  hello: Hello;
  /** The next `message` event matching `predicate` (those already read included), within 15 s. */
  message(predicate: (message: PlaygroundMessage) => boolean): Promise<PlaygroundMessage>;
  /** The next `view` event (a modal) matching `predicate` (those already read included), within 15 s. */
  view(predicate: (view: PlaygroundView) => boolean): Promise<PlaygroundView>;
  /** The `view` events read so far. */
  viewsRead(): PlaygroundView[];
  close(): void;
}

/**
 * Opens `GET /playground/events` (what loading the page does) and waits for its `hello`. `client`: the id the page
 * names itself with (`?client=`), none when unset.
 */
export async function openPlaygroundEvents(pageUrl: string, client?: string): Promise<PlaygroundEvents> {
  const controller = new AbortController();
  const url = new URL('playground/events', pageUrl);
  if (client !== undefined) url.searchParams.set('client', client);
  const response = await fetch(url, { signal: controller.signal });
  if (!response.body) throw new Error('no event stream');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const events: { event: string; data: unknown }[] = [];
  let buffer = '';

  const readMore = async (): Promise<void> => {
    const { value, done } = await reader.read();
    if (done) throw new Error('event stream ended');
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const chunk = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(chunk)?.[1];
      const data = /^data: (.*)$/m.exec(chunk)?.[1];
      if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) });
      end = buffer.indexOf('\n\n');
    }
  };

  const next = async <T>(pick: (event: { event: string; data: unknown }) => T | undefined): Promise<T> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      for (const event of events) {
        const picked = pick(event);
        if (picked !== undefined) return picked;
      }
      if (Date.now() > deadline) throw new Error('timed out waiting for a playground event');
      await readMore();
    }
  };

  const hello = await next((e) => (e.event === 'hello' ? (e.data as Hello) : undefined));
  return {
    hello,
    message: (predicate) =>
      next((e) =>
        e.event === 'message' && predicate(e.data as PlaygroundMessage)
          ? (e.data as PlaygroundMessage)
          : undefined,
      ),
    view: (predicate) =>
      next((e) =>
        e.event === 'view' && predicate(e.data as PlaygroundView) ? (e.data as PlaygroundView) : undefined,
      ),
    viewsRead: () => events.filter((e) => e.event === 'view').map((e) => e.data as PlaygroundView),
    close: () => controller.abort(),
  };
}

/** Types a slash command at the page: `POST /playground/command`, as its composer does. */
export async function playgroundCommand(pageUrl: string, command: string, text: string): Promise<unknown> {
  const response = await fetch(new URL('playground/command', pageUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ command, text }),
  });
  return response.json();
}

/** Every text a person reads in a playground message. */
export function textOfPlaygroundMessage(message: PlaygroundMessage): string {
  const parts: string[] = [message.text];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'text' && typeof value === 'string') parts.push(value);
        else walk(value);
      }
    }
  };
  walk(message.blocks);
  return parts.join('\n');
}
