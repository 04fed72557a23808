import { ADAPTERS } from './harness.js';
import { keyStoreContract } from './key-store.contract.js';

for (const adapter of ADAPTERS) keyStoreContract(adapter.name, adapter.make);
