import { ADAPTERS } from './harness.js';
import { sessionStoreContract } from './session-store.contract.js';

for (const adapter of ADAPTERS) sessionStoreContract(adapter.name, adapter.make);
