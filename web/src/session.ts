import { api, setCsrfToken } from './api';

export interface Session {
  name: string;
  csrf_token: string;
  expires_at: string;
}

/** The current session, or null when signed out (the cookie itself is httpOnly: only the server reads it). */
export async function currentSession(): Promise<Session | null> {
  try {
    const s = await api.get<Session>('/v1/admin/session');
    setCsrfToken(s.csrf_token);
    return s;
  } catch (err) {
    if ((err as { status?: number }).status === 401) return null;
    throw err;
  }
}

export async function signIn(key: string): Promise<Session> {
  const s = await api.post<Session>('/v1/admin/session', { key });
  setCsrfToken(s.csrf_token);
  return s;
}

export async function signOut(): Promise<void> {
  await api.delete('/v1/admin/session');
  setCsrfToken(null);
}
