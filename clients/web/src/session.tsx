/** Who is signed in (`GET /auth/me`), for every page: their user, organisation and role. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext } from 'react';
import { api } from './api';
import { navigate } from './router';

export type Me = Awaited<ReturnType<typeof api.auth.me>>;
export type Role = Me['role'];

const SessionContext = createContext<Me | null>(null);

export const meQuery = { queryKey: ['me'], queryFn: () => api.auth.me() } as const;

export function useMeQuery() {
  return useQuery({ ...meQuery, retry: false, staleTime: 60_000 });
}

export function SessionProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <SessionContext.Provider value={me}>{children}</SessionContext.Provider>;
}

/** The signed-in person; only inside the signed-in part of the console. */
export function useSession(): Me {
  const me = useContext(SessionContext);
  if (!me) throw new Error('useSession outside the signed-in console');
  return me;
}

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };

/**
 * Whether the signed-in role reaches `least`: pages show write controls only to those who may use them (the
 * server stays the authority and answers 403 to anyone else).
 */
export function useCan(least: Role): boolean {
  return RANK[useSession().role] >= RANK[least];
}

/**
 * Leaves the signed-in console once the session is gone (signed out, account deleted): every answer kept for
 * it is forgotten, and the sign-in page shows.
 */
export function useLeave(): () => void {
  const queryClient = useQueryClient();
  return () => {
    queryClient.clear();
    navigate('/login', { replace: true });
  };
}

/** Signing out of this browser: the session ends on the server, then the console leaves. */
export function useSignOut() {
  const leave = useLeave();
  return useMutation({ mutationFn: () => api.auth.logout(), onSuccess: leave });
}
