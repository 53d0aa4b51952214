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
