// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function TeamPage(_props: Record<string, string>) {
  return <Page title="Team">{null}</Page>;
}
