// The package ships plain CommonJS without types: an array of local parts.
declare module 'role-based-email-addresses' {
  const prefixes: string[];
  export default prefixes;
}
