/**
 * The SSH engine's public surface for tests: scenario controls of an SSH mount, the default SSH
 * scenario, and certificate inspection.
 */
export {
  SshScenario,
  installSshDefaults,
  sshScenario,
  type CaRoleOptions,
  type OtpRoleOptions,
  type SshDefaults,
} from "./ssh-scenario.js";
export { inspectCertificate, sshFingerprint, type CertificateInspection } from "./certificate-inspection.js";
export { sshHttp, SSH_ROUTES } from "../../../interceptors/secrets/ssh/ssh-http.js";
export type { AlgorithmSigner, SshCaRecord, SshKeyType, SshMountState, SshOtpRecord, SshRole } from "../../../simulator/secrets/ssh/ssh-state.js";
export type { EcdsaCurve } from "../../../simulator/secrets/ssh/public-key.js";
export type { SshRoleInput } from "../../../simulator/secrets/ssh/ssh-roles.js";
