// A person's browser reduced to what the pages need: its cookies, the CSRF token of the last
// page, forms sent url-encoded or multipart. For the checks a real browser cannot make
// (forged posts, a stranger's token, the 11th wrong password).
export interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

export class WebClient {
  cookie = '';
  csrf = '';
  readonly base: string;
  /** Sent with every request: what names this visitor (the clearnet proxy's client header, i2pd's destination). */
  readonly extra: Record<string, string>;

  constructor(base: string, extra: Record<string, string> = {}) {
    this.base = base;
    this.extra = extra;
  }

  async get(path: string): Promise<Answer> {
    return this.#keep(await fetch(`${this.base}${path}`, { headers: this.#headers(), redirect: 'manual' }));
  }

  /** A url-encoded form; the page's CSRF token is added unless `fields` names one. */
  async post(path: string, fields: Record<string, string>): Promise<Answer> {
    const body = new URLSearchParams({ csrf: this.csrf, ...fields });
    return this.#keep(await fetch(`${this.base}${path}`, { method: 'POST', headers: { ...this.#headers(), 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' }));
  }

  async postMultipart(path: string, form: FormData): Promise<Answer> {
    return this.#keep(await fetch(`${this.base}${path}`, { method: 'POST', headers: this.#headers(), body: form, redirect: 'manual' }));
  }

  /** Signs in with e-mail and password; returns the answer to the form. */
  async signIn(email: string, password: string): Promise<Answer> {
    await this.get('/sign-in');
    return this.post('/sign-in', { method: 'password', email, password });
  }

  #headers(): Record<string, string> {
    return this.cookie ? { ...this.extra, cookie: this.cookie } : { ...this.extra };
  }

  async #keep(res: Response): Promise<Answer> {
    // every cookie by name (the web session's and the language's), as one Cookie header
    const set = res.headers.getSetCookie();
    if (set.length) {
      const jar = new Map(this.cookie ? this.cookie.split('; ').map((c) => [c.slice(0, c.indexOf('=')), c] as const) : []);
      for (const line of set) {
        const pair = line.split(';')[0];
        const name = pair.slice(0, pair.indexOf('='));
        if (pair.length === name.length + 1 || /;\s*max-age=0/i.test(line)) jar.delete(name);
        else jar.set(name, pair);
      }
      this.cookie = [...jar.values()].join('; ');
    }
    const body = await res.text();
    const token = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, headers: res.headers, body };
  }
}
