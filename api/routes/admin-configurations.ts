import { Router } from 'express';
import { AppError } from '../../shared/errors/app-error.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { httpUrl } from '../../shared/text/http-url.js';
import { requirePermission } from '../middleware/auth.js';
import {
  configurationListQuerySchema, conversationListQuerySchema, createConfigurationSchema, createInstantAnswerSchema, insightsQuerySchema,
  instantAnswerListQuerySchema, updateConfigurationSchema, updateInstantAnswerSchema,
} from '../schemas/configuration-schemas.js';
import { blockedSuggestionListQuerySchema, blockedSuggestionPageSchema, blockedSuggestionSchema } from '../schemas/blocked-suggestion-schemas.js';
import { parseDateRange } from '../schemas/date-param.js';
import { validate } from '../schemas/validate.js';
import { boundPathParams } from '../schemas/path-params.js';
import { pageOf, storePage } from '../schemas/conversation-page.js';
import { createdCursor, pageOf as listPageOf, storePage as listStorePage, uidCursor } from '../schemas/list-page.js';
import type { ConfigurationService } from '../services/configuration-service.js';

/** Blocked suggestions a configuration may hold: each is checked on every autocomplete. */
const MAX_BLOCKED = 10_000;
/** A transcript shows at most this many turns (the latest). */
const TRANSCRIPT_TURNS = 10_000;

/** Admin API for search-interface configurations, their instant answers, their insights and their conversations. */
export function adminConfigurationsRouter(service: ConfigurationService, storage: Storage): Router {
  const r = boundPathParams(Router());
  r.use('/v1/admin/configurations', requirePermission('admin'));

  r.post('/v1/admin/configurations', async (req, res) => {
    res.status(201).json(service.view(await service.create(validate(createConfigurationSchema, req.body ?? {}))));
  });
  r.get('/v1/admin/configurations', async (req, res) => {
    const q = validate(configurationListQuerySchema, req.query);
    const page = listPageOf(await storage.configurations.list(listStorePage(q)), q.limit, createdCursor, (c) => ({ createdAt: c.createdAt, id: c.uid }));
    res.json({ configurations: page.rows.map((c) => service.view(c)), next_cursor: page.next_cursor });
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
    const q = validate(instantAnswerListQuerySchema, req.query);
    const page = listPageOf(await service.instantAnswers(req.params.uid, listStorePage(q)), q.limit, createdCursor, (a) => a);
    res.json({ instant_answers: page.rows.map((a) => service.answerView(a)), next_cursor: page.next_cursor });
  });
  r.patch('/v1/admin/configurations/:uid/instant-answers/:id', async (req, res) => {
    res.json(service.answerView(await service.updateInstantAnswer(req.params.uid, req.params.id, validate(updateInstantAnswerSchema, req.body ?? {}))));
  });
  r.delete('/v1/admin/configurations/:uid/instant-answers/:id', async (req, res) => {
    await service.deleteInstantAnswer(req.params.uid, req.params.id);
    res.status(204).end();
  });

  // Suggestions an operator keeps out of autocomplete, whatever visitors ask.
  const blocked = async (uid: string, q: { limit: number; cursor?: string }) => {
    const page = listPageOf(await storage.events.blockedSuggestions(uid, listStorePage(q)), q.limit, uidCursor, (s) => s);
    return { blocked_suggestions: page.rows, next_cursor: page.next_cursor };
  };
  r.get('/v1/admin/configurations/:uid/blocked-suggestions', async (req, res) => {
    const q = validate(blockedSuggestionListQuerySchema, req.query);
    res.json(await blocked((await service.get(req.params.uid)).uid, q));
  });
  r.put('/v1/admin/configurations/:uid/blocked-suggestions', async (req, res) => {
    const { suggestion } = validate(blockedSuggestionSchema, { ...req.query, ...(req.body ?? {}) });
    const q = validate(blockedSuggestionPageSchema, req.query);
    const config = await service.get(req.params.uid);
    const list = await storage.events.blockedSuggestions(config.uid);
    if (list.length >= MAX_BLOCKED && !list.includes(suggestion)) {
      throw new AppError('conflict', `This configuration already blocks ${MAX_BLOCKED} suggestions; unblock some before blocking more`);
    }
    await storage.events.blockSuggestion(config.uid, suggestion, Date.now());
    res.json(await blocked(config.uid, q));
  });
  r.delete('/v1/admin/configurations/:uid/blocked-suggestions', async (req, res) => {
    const { suggestion } = validate(blockedSuggestionSchema, { ...req.query, ...(req.body ?? {}) });
    await storage.events.unblockSuggestion((await service.get(req.params.uid)).uid, suggestion);
    res.status(204).end();
  });

  r.get('/v1/admin/configurations/:uid/insights', async (req, res) => {
    const q = validate(insightsQuerySchema, req.query);
    const config = await service.get(req.params.uid);
    const { from, to } = parseDateRange(q.from, q.to);
    const i = await storage.events.insights(config.uid, from, to, { timeZone: q.tz, limit: q.limit });
    res.json({
      uid: config.uid, from: new Date(from).toISOString(), to: new Date(to).toISOString(), tz: q.tz,
      searches: i.searches, sessions: i.sessions, clicks: i.clicks, searches_with_click: i.searchesWithClick, ctr: i.ctr,
      no_result_searches: i.noResultSearches, support_forwards: i.supportForwards,
      summaries: i.summaries, chats: i.chats, unanswered_generations: i.unansweredGenerations,
      summaries_answered: i.summaries - i.summariesUnanswered, summaries_unanswered: i.summariesUnanswered,
      chats_answered: i.chats - i.chatsUnanswered, chats_unanswered: i.chatsUnanswered,
      top_queries: i.topQueries, no_result_queries: i.noResultQueries, click_positions: i.clickPositions,
      by_day: i.byDay.map((d) => ({ day: d.day, searches: d.searches, clicks: d.clicks, no_results: d.noResults, sessions: d.sessions })),
      devices: i.devices, support_forward_urls: i.supportForwardUrls,
    });
  });

  r.get('/v1/admin/configurations/:uid/conversations', async (req, res) => {
    const q = validate(conversationListQuerySchema, req.query);
    const config = await service.get(req.params.uid);
    const { from, to } = parseDateRange(q.from, q.to);
    const page = pageOf(await storage.conversations.list(config.uid, from, to, storePage(q)), q.limit);
    res.json({
      next_cursor: page.next_cursor,
      conversations: page.rows.map((c) => ({
        id: c.id, url: httpUrl(c.latestUrl) ?? null, updated_at: new Date(c.updatedAt).toISOString(), turns: c.turns,
      })),
    });
  });
  r.get('/v1/admin/configurations/:uid/conversations/:id', async (req, res) => {
    const config = await service.get(req.params.uid);
    const turns = await storage.conversations.turns(config.uid, req.params.id, TRANSCRIPT_TURNS);
    if (turns.length === 0) throw new AppError('not_found', `Conversation '${req.params.id}' does not exist in configuration '${config.uid}'`);
    res.json({
      id: req.params.id,
      turns: turns.map((t) => ({
        question: t.question, reply: t.reply, at: new Date(t.at).toISOString(),
        references: t.references.map((ref) => {
          const url = httpUrl(ref.url);
          return { title: ref.title, ...(url ? { url } : {}) };
        }),
      })),
    });
  });
  return r;
}
