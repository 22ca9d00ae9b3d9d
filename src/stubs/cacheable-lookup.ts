// Bundle-time stand-in for got's DNS cache dependency: roster never sets got's `dnsCache` option, and the
// real module loads node:dns as got loads.
export default class CacheableLookup {
  constructor() {
    throw new Error('got dnsCache is not used by roster');
  }
}
