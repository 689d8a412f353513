// A v1 client speaking exactly SEED-SPEC.md: api_key header, multipart PATCH of offset+file.
export interface V1Response {
  status: number;
  headers: Headers;
  body: any;
}

export function v1(base: string, key: string) {
  const send = async (method: string, path: string, init: { json?: unknown; form?: FormData; body?: RequestInit['body']; headers?: Record<string, string> } = {}): Promise<V1Response> => {
    const headers: Record<string, string> = { api_key: key, ...(init.headers ?? {}) };
    let body: RequestInit['body'] = init.body;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    if (init.form) body = init.form;
    const res = await fetch(`${base}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text || undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep text */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  const keyOf = (location: string) => location.split('/').pop()!;
  return {
    send,
    create: (name: string, size: number) => send('POST', '/v1/upload/create-media-url', { json: { name, size } }),
    head: (k: string) => send('HEAD', `/v1/upload/resumable/${k}`),
    patch: (k: string, offset: number | string, chunk: Uint8Array) => {
      const form = new FormData();
      form.append('offset', String(offset));
      form.append('file', new Blob([chunk]), 'chunk');
      return send('PATCH', `/v1/upload/resumable/${k}`, { form });
    },
    del: (k: string) => send('DELETE', `/v1/upload/resumable/${k}`),
    keyOf,
  };
}
