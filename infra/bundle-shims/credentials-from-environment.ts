import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * What `@aws-sdk/credential-provider-node` is in a Lambda bundle (infra/bundling.ts): the SDK
 * clients' default credential chain reduced to its first link. Lambda hands a function its
 * role's credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN), so the chain's other providers — profiles, SSO, process, web identity,
 * container and instance metadata — never run there, and only cost import time (-117 KiB and
 * 22-31 ms in the floor bundle, docs/performance.md). Missing credentials fail as fromEnv fails.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
