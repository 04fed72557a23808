import { request } from 'node:http';

export interface WidgetResponse {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export interface WidgetCallOptions {
  /**
   * The local address the connection comes from. Every 127.0.0.0/8 address is the loopback interface on
   * Linux, so a test can speak as many distinct clients to a service listening on 127.0.0.1, without
   * trusting a proxy header.
   */
  from?: string;
  headers?: Record<string, string>;
}

/**
 * A search-interface request as a browser makes it (no API key): GET parameters in the query string,
 * POST ones as a JSON body.
 */
export function widgetCall(base: string, method: string, path: string, params: Record<string, unknown> = {}, o: WidgetCallOptions = {}): Promise<WidgetResponse> {
  const url = new URL(base + path);
  if (method === 'GET') for (const [k, v] of Object.entries(params)) url.searchParams.set(k, String(v));
  const body = method === 'GET' ? undefined : JSON.stringify(params);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      localAddress: o.from,
      headers: { 'content-type': 'application/json', ...(body ? { 'content-length': Buffer.byteLength(body) } : {}), ...o.headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {}
        resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The n-th of many distinct loopback client addresses (n from 0). */
export const clientAddress = (n: number) => `127.0.${Math.floor(n / 250) + 1}.${(n % 250) + 2}`;
