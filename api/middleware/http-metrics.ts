import type { NextFunction, Request, Response } from 'express';
import { Histogram, type Registry } from 'prom-client';

/** Request latency by route pattern and status, in `registry`. */
export function httpLatency(registry: Registry): Histogram<'method' | 'route' | 'status'> {
  return new Histogram({
    name: 'quarry_http_request_duration_seconds',
    help: 'HTTP request latency by route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
}

export function httpMetrics(latency: Histogram<'method' | 'route' | 'status'>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      // The route pattern, never the raw path, so document ids don't explode label cardinality.
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      latency.observe({ method: req.method, route, status: String(res.statusCode) }, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}
