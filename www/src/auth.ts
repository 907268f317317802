// Requests to the API server with a bearer token, asked for when the
// server asks for one: an answer of 401 opens the token dialog (with the
// server's message), the token given is kept for this browser tab's session
// only (sessionStorage: never localStorage, never a cookie) and sent as
// `Authorization: Bearer …` on every request from then on; a token the
// server refuses is asked for again. A 403 is not retried: the caller shows
// the server's Forbidden message.

/** Where the token is kept for the session. */
export const TOKEN_KEY = 'hush.bearerToken';

/** The server said who may not: a 403, with its `Status` message. */
export class Forbidden extends Error {}

/** The server wants a token and none was given (the dialog was cancelled). */
export class Unauthorized extends Error {}

/** The message of a Kubernetes `Status` answer, else its status line. */
export async function statusMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const status = JSON.parse(text) as { message?: string; reason?: string };
    if (status.message) return status.message;
    if (status.reason) return status.reason;
  } catch {
    // Not JSON: the text, if short, else the status line.
  }
  return text && text.length < 200 ? text.trim() : `HTTP ${response.status} ${response.statusText}`.trim();
}

export class Auth {
  private dialog: HTMLDialogElement;
  private asking: Promise<string | null> | null = null;

  constructor(dialog: HTMLDialogElement) {
    this.dialog = dialog;
  }

  /** The token kept for this session, if any. */
  get token(): string | null {
    try {
      return sessionStorage.getItem(TOKEN_KEY);
    } catch {
      return null;
    }
  }

  /** Forgets the token. */
  clear(): void {
    try {
      sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // Storage unavailable: nothing kept.
    }
  }

  /**
   * `fetch` with the session's token; on 401 asks for a token (again) and
   * retries. Throws `Unauthorized` when the person cancels; any other answer,
   * 403 included, is returned to the caller.
   */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    for (;;) {
      const headers = new Headers(init.headers);
      const token = this.token;
      if (token) headers.set('Authorization', `Bearer ${token}`);
      const response = await fetch(url, { ...init, headers });
      if (response.status !== 401) return response;
      const message = await statusMessage(response);
      const given = await this.ask(message, token !== null);
      if (given === null) throw new Unauthorized(message);
      try {
        sessionStorage.setItem(TOKEN_KEY, given);
      } catch {
        throw new Unauthorized(`${message} (this browser keeps no session storage)`);
      }
    }
  }

  /** Opens the dialog (once, however many requests wait); resolves to the token, or null if cancelled. */
  ask(message: string, refused: boolean): Promise<string | null> {
    if (this.asking) return this.asking;
    const dialog = this.dialog;
    const form = dialog.querySelector('form')!;
    const input = dialog.querySelector<HTMLInputElement>('input[name=token]')!;
    dialog.querySelector('[data-field=message]')!.textContent = refused ? `The server refused the token: ${message}` : `The server answered: ${message}`;
    input.value = '';
    this.asking = new Promise<string | null>((resolve) => {
      const done = (token: string | null) => {
        form.removeEventListener('submit', submit);
        dialog.removeEventListener('close', closed);
        this.asking = null;
        resolve(token);
      };
      const submit = (e: SubmitEvent) => {
        const button = e.submitter as HTMLButtonElement | null;
        const token = input.value.trim();
        if (button?.value !== 'submit') return done(null);
        if (!token) {
          e.preventDefault();
          input.focus();
          return;
        }
        done(token);
      };
      // Escape closes the dialog without a submit.
      const closed = () => done(null);
      form.addEventListener('submit', submit);
      dialog.addEventListener('close', closed);
    });
    dialog.showModal();
    input.focus();
    return this.asking;
  }
}
