/** Shared helpers for the selector tests: capture the DomainError a call throws. */
import { expect } from "vitest";
import { DomainError } from "../../../../src/simulator/kernel/errors.js";

/** The DomainError `fn` throws (fails the test when it returns or throws anything else). */
export function domainErrorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    const domain = error as DomainError;
    expect(domain.code).toBe("invalid");
    expect(domain.service).toBe("access-control");
    return domain;
  }
  throw new Error("expected a DomainError, but the call succeeded");
}

/** The real-service message of the DomainError `fn` throws. */
export function messageOf(fn: () => unknown): string {
  return domainErrorOf(fn).detail;
}
