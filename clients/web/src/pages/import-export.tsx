// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function ImportExportPage(_props: Record<string, string>) {
  return <Page title="Import and export">{null}</Page>;
}
