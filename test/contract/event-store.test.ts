import { eventStoreContract } from './event-store.contract.js';
import { ADAPTERS } from './harness.js';

for (const adapter of ADAPTERS) eventStoreContract(adapter.name, adapter.make);
