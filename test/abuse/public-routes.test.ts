// The abuse catalogue's public attacks (scripts/abuse/attacks.ts); what is checked: abuse-suite.ts.
import { abuseSuite } from './abuse-suite.js';

abuseSuite('public');
