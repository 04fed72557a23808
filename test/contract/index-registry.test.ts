import { ADAPTERS } from './harness.js';
import { indexRegistryContract } from './index-registry.contract.js';

for (const adapter of ADAPTERS) indexRegistryContract(adapter.name, adapter.make);
