export * as listSearch from './listSearch';
export { credentialTest } from './credentialTest';
