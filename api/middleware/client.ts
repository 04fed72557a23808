import type { Request } from 'express';
import { clientNetwork } from '../../shared/auth/client-network.js';

/**
 * The client a request comes from, as every per-client rule counts it: rate limits, wrong-key limits and
 * learning. The address is the connection's, or the one a trusted proxy forwarded (QUARRY_TRUST_PROXY names
 * the proxies; any other peer's X-Forwarded-For is ignored), grouped to its network (an IPv6 /64).
 */
export const clientOf = (req: Request): string => clientNetwork(req.ip ?? req.socket.remoteAddress ?? 'unknown');
