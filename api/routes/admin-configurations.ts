import { Router } from 'express';
import type { Storage } from '../../shared/storage/create-storage.js';
import { requirePermission } from '../middleware/auth.js';
import {
  createConfigurationSchema, createInstantAnswerSchema, insightsQuerySchema, updateConfigurationSchema, updateInstantAnswerSchema,
} from '../schemas/configuration-schemas.js';
import { parseDateRange } from '../schemas/date-param.js';
import { validate } from '../schemas/validate.js';
import type { ConfigurationService } from '../services/configuration-service.js';

/** Admin API for search-interface configurations, their instant answers and their insights. */
export function adminConfigurationsRouter(service: ConfigurationService, storage: Storage): Router {
  const r = Router();
  r.use('/v1/admin/configurations', requirePermission('admin'));

  r.post('/v1/admin/configurations', async (req, res) => {
    res.status(201).json(service.view(await service.create(validate(createConfigurationSchema, req.body ?? {}))));
  });
  r.get('/v1/admin/configurations', async (_req, res) => {
    res.json({ configurations: (await storage.configurations.list()).map((c) => service.view(c)) });
  });
  r.get('/v1/admin/configurations/:uid', async (req, res) => {
    res.json(service.view(await service.get(req.params.uid)));
  });
  r.patch('/v1/admin/configurations/:uid', async (req, res) => {
    res.json(service.view(await service.update(req.params.uid, validate(updateConfigurationSchema, req.body ?? {}))));
  });
  r.delete('/v1/admin/configurations/:uid', async (req, res) => {
    await service.delete(req.params.uid);
    res.status(204).end();
  });

  r.post('/v1/admin/configurations/:uid/instant-answers', async (req, res) => {
    res.status(201).json(service.answerView(await service.addInstantAnswer(req.params.uid, validate(createInstantAnswerSchema, req.body ?? {}))));
  });
  r.get('/v1/admin/configurations/:uid/instant-answers', async (req, res) => {
    res.json({ instant_answers: (await service.instantAnswers(req.params.uid)).map((a) => service.answerView(a)) });
  });
  r.patch('/v1/admin/configurations/:uid/instant-answers/:id', async (req, res) => {
    res.json(service.answerView(await service.updateInstantAnswer(req.params.uid, req.params.id, validate(updateInstantAnswerSchema, req.body ?? {}))));
  });
  r.delete('/v1/admin/configurations/:uid/instant-answers/:id', async (req, res) => {
    await service.deleteInstantAnswer(req.params.uid, req.params.id);
    res.status(204).end();
  });

  r.get('/v1/admin/configurations/:uid/insights', async (req, res) => {
    const q = validate(insightsQuerySchema, req.query);
    const config = await service.get(req.params.uid);
    const { from, to } = parseDateRange(q.from, q.to);
    const i = await storage.events.insights(config.uid, from, to);
    res.json({
      uid: config.uid, from: new Date(from).toISOString(), to: new Date(to).toISOString(),
      searches: i.searches, sessions: i.sessions, clicks: i.clicks, searches_with_click: i.searchesWithClick, ctr: i.ctr,
      no_result_searches: i.noResultSearches, support_forwards: i.supportForwards,
      summaries: i.summaries, chats: i.chats, unanswered_generations: i.unansweredGenerations, top_queries: i.topQueries,
      no_result_queries: i.noResultQueries, click_positions: i.clickPositions,
      by_day: i.byDay.map((d) => ({ day: d.day, searches: d.searches, clicks: d.clicks, no_results: d.noResults })),
    });
  });
  return r;
}
