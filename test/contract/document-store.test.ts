import { documentStoreContract } from './document-store.contract.js';
import { ADAPTERS } from './harness.js';

for (const adapter of ADAPTERS) documentStoreContract(adapter.name, adapter.make);
