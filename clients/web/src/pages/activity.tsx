// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function ActivityPage(_props: Record<string, string>) {
  return <Page title="Activity">{null}</Page>;
}
