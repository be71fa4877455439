export * as listSearch from './listSearch';
export * as credentialTest from './credentialTest';
