import { PageHeader } from '../components/controls';

// Placeholder until this page is written.
export default function Page() {
  return <PageHeader title="operations" />;
}
