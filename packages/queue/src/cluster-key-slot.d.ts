// cluster-key-slot (the hash-slot function ioredis itself uses) ships no types.
declare module 'cluster-key-slot' {
  /** the Redis Cluster hash slot (0–16383) of a key, honouring its `{hash tag}` */
  function generate(key: string | Buffer): number;
  namespace generate {
    /** the slot every key shares, or -1 when they do not all share one */
    function generateMulti(keys: Array<string | Buffer>): number;
  }
  export = generate;
}
