import { ADAPTERS } from './harness.js';
import { sourceStoreContract } from './source-store.contract.js';

for (const adapter of ADAPTERS) sourceStoreContract(adapter.name, adapter.make);
