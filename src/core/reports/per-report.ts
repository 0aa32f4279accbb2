/**
 * What is read once per report and kept until forgotten (the report deleted or replaced, or what the value was read
 * from changed). A read that fails is not kept: the next ask reads again.
 */
export class PerReport<T> {
  private readonly kept = new Map<string, Promise<T>>();

  constructor(private readonly read: (reportId: string) => Promise<T>) {}

  of(reportId: string): Promise<T> {
    let value = this.kept.get(reportId);
    if (!value) {
      value = this.read(reportId);
      value.catch(() => this.kept.get(reportId) === value && this.kept.delete(reportId));
      this.kept.set(reportId, value);
    }
    return value;
  }

  forget(reportId?: string): void {
    if (reportId === undefined) this.kept.clear();
    else this.kept.delete(reportId);
  }
}
