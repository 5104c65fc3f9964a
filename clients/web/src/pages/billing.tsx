// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function BillingPage(_props: Record<string, string>) {
  return <Page title="Plan and billing">{null}</Page>;
}
