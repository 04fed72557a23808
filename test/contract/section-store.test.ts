import { ADAPTERS } from './harness.js';
import { sectionStoreContract } from './section-store.contract.js';

for (const adapter of ADAPTERS) sectionStoreContract(adapter.name, adapter.make, adapter.features);
