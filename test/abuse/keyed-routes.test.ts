// The abuse catalogue's keyed attacks (scripts/abuse/attacks.ts); what is checked: abuse-suite.ts.
import { abuseSuite } from './abuse-suite.js';

abuseSuite('keyed');
