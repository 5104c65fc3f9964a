import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { isSignedOut } from './api';
import { App } from './app';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    // The SDK retries what is worth retrying (429, in-flight 409); a query never retries on its own.
    queries: { retry: false, refetchOnWindowFocus: false },
  },
});
// A session that ends while the console is open (signed out elsewhere, account deleted): any page's 401
// has the session asked again, whose own 401 then sends the console to the sign-in page (app.tsx).
queryClient.getQueryCache().subscribe((event) => {
  const { query } = event;
  if (event.type === 'updated' && query.queryKey[0] !== 'me' && isSignedOut(query.state.error))
    void queryClient.invalidateQueries({ queryKey: ['me'] });
});

const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
