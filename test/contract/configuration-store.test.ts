import { ADAPTERS } from './harness.js';
import { configurationStoreContract } from './configuration-store.contract.js';

for (const adapter of ADAPTERS) configurationStoreContract(adapter.name, adapter.make);
