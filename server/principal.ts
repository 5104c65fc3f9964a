/** Who makes a request, as authentication gives it to every layer: the types alone. */
import type { Plan, Role } from '../contract/common/enums';

export type { Plan, Role };

/** The caller as the auth layer needs it: user, organisation and the key or session used. */
export interface Principal {
  userId: string;
  orgId: string;
  role: Role;
  plan: Plan;
  /** The organisation's limit overrides, for `effectiveLimits(plan, limitOverrides)` (the rate limit). */
  limitOverrides: Record<string, number | null>;
  keyId: string | null;
  permissions: ('read' | 'write')[] | null;
  lastUsedAt: Date | null;
}
