import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';

/** A loopback port nothing listens on now: the system picks it, and it is let go at once. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((listening) => probe.listen(0, '127.0.0.1', listening));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((closed) => probe.close(() => closed()));
  return port;
}
