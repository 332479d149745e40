import { didYouMean } from './did-you-mean.js';
import { NotFoundError } from '../common/errors.js';
import type { Task } from './task.js';

/** The loaded tasks, in load order, looked up by id. */
export class TaskStore {
  private readonly byId = new Map<string, Task>();
  private readonly ordered: Task[] = [];

  constructor(tasks: Iterable<Task>) {
    for (const task of tasks) {
      if (this.byId.has(task.id)) continue;
      this.byId.set(task.id, task);
      this.ordered.push(task);
    }
  }

  get size(): number {
    return this.ordered.length;
  }

  get(id: string): Task {
    const task = this.byId.get(id);
    if (!task)
      throw new NotFoundError(`unknown task_id '${id}'${didYouMean(id, [...this.byId.keys()])}; this server has ${this.size} tasks`);
    return task;
  }

  /** The task, or undefined when it is not loaded. */
  find(id: string): Task | undefined {
    return this.byId.get(id);
  }

  list(filter: { dataset?: string } = {}): readonly Task[] {
    if (!filter.dataset) return this.ordered;
    return this.ordered.filter((t) => t.dataset === filter.dataset);
  }
}
