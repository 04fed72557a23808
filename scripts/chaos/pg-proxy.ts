import net from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL, so the chaos run can break the service's connections the way
 * a server restart or a network stall does without touching the machine's server (shared with
 * others). It forwards bytes and knows nothing of the protocol.
 *
 * - `down()`: every connection is cut and new ones are refused (ECONNREFUSED) until `up()`: what the
 *   service sees of a restarting server.
 * - `stall()`: nothing is forwarded either way and new connections are accepted but never answered,
 *   until `resume()`; a side that hangs up meanwhile reaches the other only then, as after a partition.
 */
export class PgProxy {
  private readonly pairs = new Set<Pair>();
  private server: net.Server | null = null;
  private stalled = false;
  private refusing = false;

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }, port = 0): Promise<PgProxy> {
    const proxy = new PgProxy(port, target);
    const bound = await proxy.listen(port);
    (proxy as { port: number }).port = bound;
    return proxy;
  }

  /** Connections open through the proxy now. */
  get connections(): number {
    return this.pairs.size;
  }

  down(): void {
    this.refusing = true;
    this.stalled = false;
    this.server?.close();
    this.server = null;
    for (const p of this.pairs) p.cut();
  }

  async up(): Promise<void> {
    if (!this.refusing) return;
    this.refusing = false;
    await this.listen(this.port);
  }

  stall(): void {
    this.stalled = true;
    for (const p of this.pairs) p.pause();
  }

  resume(): void {
    this.stalled = false;
    for (const p of [...this.pairs]) p.resume();
  }

  async close(): Promise<void> {
    this.refusing = true;
    const server = this.server;
    this.server = null;
    for (const p of this.pairs) p.cut();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }

  private listen(port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = net.createServer((client) => this.accept(client));
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        this.server = server;
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  }

  private accept(client: net.Socket): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const pair = new Pair(client, this.target, () => this.stalled, () => this.pairs.delete(pair));
    this.pairs.add(pair);
    if (this.stalled) pair.pause();
    else pair.resume();
  }
}

/** One client connection and its upstream connection, forwarded both ways unless paused. */
class Pair {
  private upstream: net.Socket | null = null;
  private closed = false;
  /** A hang-up that arrived while stalled, delivered on resume. */
  private pendingClose = false;

  constructor(
    private readonly client: net.Socket,
    private readonly target: { host: string; port: number },
    private readonly isStalled: () => boolean,
    private readonly onClosed: () => void,
  ) {
    client.setNoDelay(true);
    client.pause();
    client.on('error', () => this.hangUp());
    client.on('close', () => this.hangUp());
  }

  /** Starts forwarding (connecting upstream first if this connection arrived during a stall). */
  resume(): void {
    if (this.closed) return;
    if (this.pendingClose) {
      this.cut();
      return;
    }
    if (!this.upstream) this.connect();
    this.client.resume();
    this.upstream!.resume();
  }

  pause(): void {
    this.client.pause();
    this.upstream?.pause();
  }

  cut(): void {
    if (this.closed) return;
    this.closed = true;
    this.client.destroy();
    this.upstream?.destroy();
    this.onClosed();
  }

  private connect(): void {
    const up = net.connect(this.target.port, this.target.host);
    up.setNoDelay(true);
    this.upstream = up;
    up.on('error', () => this.hangUp());
    up.on('close', () => this.hangUp());
    this.forward(this.client, up);
    this.forward(up, this.client);
  }

  private forward(from: net.Socket, to: net.Socket): void {
    from.on('data', (chunk) => {
      if (to.write(chunk)) return;
      from.pause();
      to.once('drain', () => {
        if (!this.isStalled()) from.resume();
      });
    });
  }

  private hangUp(): void {
    if (this.isStalled()) this.pendingClose = true;
    else this.cut();
  }
}
