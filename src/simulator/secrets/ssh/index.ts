/**
 * The SSH secrets engine's pure rules: state, roles, credentials (OTP, dynamic), lookup, verify,
 * the certificate authority, signing, and the OpenSSH formats they rest on.
 */
export { sshEngine } from "./ssh-engine.js";
export { initialSshMountState, OTP_LEASE_KIND, type AlgorithmSigner, type SshCaRecord, type SshKeyType, type SshMountState, type SshOtpRecord, type SshRole } from "./ssh-state.js";
export { DEFAULT_DYNAMIC_KEY_BITS, DEFAULT_INSTALL_SCRIPT, DEFAULT_NOT_BEFORE_MS, deleteRole, listRoles, readRole, roleReadForm, writeRole, type SshRoleInput } from "./ssh-roles.js";
export { deleteKey, writeKey } from "./ssh-keys.js";
export { deleteZeroAddressRoles, readZeroAddressRoles, writeZeroAddressRoles } from "./zero-address.js";
export { VERIFY_ECHO_REQUEST, VERIFY_ECHO_RESPONSE, createCredentials, lookupRoles, verifyOtp, type SshCredentials, type SshVerifyResult } from "./ssh-credentials.js";
export { DEFAULT_CA_RSA_BITS, MAX_CA_RSA_BITS, caKeySpec, configureCa, deleteCa, generateCa, readCaPublicKey, servedPublicKey, type CaConfigInput, type CaKeySpec } from "./certificate-authority.js";
export { signPublicKey, type MissingCaPolicy, type SignInput, type SignResult } from "./ssh-signing.js";
export {
  CERT_TYPE,
  CertificateError,
  certificateText,
  parseCertificate,
  signCertificate,
  verifyCertificateSignature,
  type CertificateInput,
  type ParsedCertificate,
  type RsaSignatureAlgorithm,
} from "./certificate.js";
export { authorizedKeyText, fingerprintSha256, parsePublicKeyText, publicKeyOf, SshKeyError, type EcdsaCurve, type SshKeyKind, type SshPublicKey } from "./public-key.js";
export { parsePrivateKeyText, SshPrivateKeyError, type SshSigningKey } from "./private-key.js";
export { generateEcdsa, generateEd25519, generateRsa } from "../seeded-keys.js";
export { signEcdsaDeterministic } from "./deterministic-ecdsa.js";
export { cidrContains, formatIp, parseCidr, parseIp, type CidrBlock, type IpAddress } from "./ip-address.js";
