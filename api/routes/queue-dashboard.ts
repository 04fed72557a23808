import type { Queue } from 'bullmq';
import type { Express, RequestHandler } from 'express';
import { DASHBOARD_PATH } from '../middleware/dashboard-access.js';

/**
 * The queue dashboard (bull-board) over `queues`, loaded on its first request: bull-board and its
 * Express adapter took ~0.3 s of every API process's start, for a page an operator opens now and then.
 * Mount it behind dashboardAccess at DASHBOARD_PATH.
 */
export function queueDashboard(queues: Queue[]): RequestHandler {
  let router: Promise<Express> | undefined;
  const load = async (): Promise<Express> => {
    const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
      import('@bull-board/api'),
      import('@bull-board/api/bullMQAdapter'),
      import('@bull-board/express'),
    ]);
    const board = new ExpressAdapter();
    board.setBasePath(DASHBOARD_PATH);
    createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: board });
    // bull-board's router is an Express app of its own, which would announce itself.
    const app = board.getRouter() as Express;
    app.disable('x-powered-by');
    return app;
  };
  return (req, res, next) => {
    router ??= load().catch((err: unknown) => {
      router = undefined; // a later request tries again
      throw err;
    });
    router.then((app) => app(req, res, next), next);
  };
}
