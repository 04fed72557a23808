import express from 'express';

/** Baseline for the push bench: Express 5, JSON body parsing with Quarry's 20 MB limit, nothing else. */
const app = express();
app.use(express.json({ limit: 20 * 1024 * 1024 }));
app.get('/healthz', (_req, res) => {
  res.json({ ok: true });
});
app.put('/v2/indexes/:i/documents/:d', (_req, res) => {
  res.status(204).end();
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
