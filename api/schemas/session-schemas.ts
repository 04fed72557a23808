import { z } from 'zod';

export const signInSchema = z.strictObject({
  key: z.string().min(1, 'paste a key with the admin permission (or the master key)').max(1000),
});

export const sessionViewSchema = z.object({
  name: z.string().describe("Name of the key that signed in ('master key' for the master key)"),
  csrf_token: z.string().describe('Send as X-CSRF-Token with every POST, PUT, PATCH and DELETE of this session'),
  expires_at: z.string().describe('ISO 8601; moves forward while the session is in use'),
});
