# A Ruby workload for trec's Ruby tests: <main> -> main -> Worker#run ->
# a block that Array#sort_by (C) yields to -> a DEPTH-deep recursion ->
# a leaf loop. tests/ruby/check_stacks.py reads the "@calls A->B" and
# "@leaf" markers: the lines each frame may be at.
# Usage: ruby busy.rb SECONDS [STACKFILE]: with STACKFILE, the leaf writes
# its own view of the stack (caller_locations) there once and waits.
DEPTH = 24

class Worker
  def initialize(depth, stack_file)
    @depth = depth
    @stack_file = stack_file
  end

  def run(deadline)
    [2, 1].sort_by do |k| # @calls run->block in run
      recurse(@depth, deadline) # @calls block in run->recurse
      k
    end
  end

  def recurse(n, deadline)
    return leaf(deadline) if n.zero? # @calls recurse->leaf
    recurse(n - 1, deadline) # @calls recurse->recurse
  end

  def leaf(deadline)
    dump_stack if @stack_file # @calls leaf->dump_stack
    i = 0
    while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline # @leaf leaf
      j = 0 # @leaf leaf
      while j < 20_000 # @leaf leaf
        j += 1 # @leaf leaf
      end
      i += 1 # @leaf leaf
    end
    i
  end

  # The script's own view of its stack, innermost first: "label\tpath\tline".
  def dump_stack
    File.write(@stack_file + ".tmp", caller_locations(0).map do |l|
      "#{l.label}\t#{l.absolute_path || l.path}\t#{l.lineno}\n"
    end.join)
    File.rename(@stack_file + ".tmp", @stack_file)
    sleep 1 while true # @leaf dump_stack
  end
end

def main(seconds, stack_file)
  deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
  Worker.new(DEPTH, stack_file).run(deadline) # @calls main->run
end

main(Float(ARGV[0] || "2"), ARGV[1]) # @calls <main>->main
