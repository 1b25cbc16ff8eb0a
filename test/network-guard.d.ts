// Types of network-guard.js, which stays plain CommonJS so that child processes can --require it.
import type { lookup } from 'node:dns';

export declare const GUARDED: unique symbol;
/** dns.lookup that refuses names other than localhost before asking `original`. */
export declare function guardLookup(original: typeof lookup): typeof lookup;
export declare function isLoopback(address: string): boolean;
