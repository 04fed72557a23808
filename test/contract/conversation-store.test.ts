import { ADAPTERS } from './harness.js';
import { conversationStoreContract } from './conversation-store.contract.js';

for (const adapter of ADAPTERS) conversationStoreContract(adapter.name, adapter.make);
