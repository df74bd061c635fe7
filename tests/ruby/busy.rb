# A Ruby workload for trec's Ruby tests: <main> -> main -> Worker#run ->
# a block that Array#sort_by (C) yields to -> a DEPTH-deep recursion ->
# a leaf loop. tests/ruby/check_stacks.py reads the "@calls A->B" and
# "@leaf" markers: the lines each frame may be at.
# Usage: ruby busy.rb SECONDS [STACKFILE]: with STACKFILE, the leaf writes
# its own view of the stack (caller_locations) there, calls zlib's deflate
# (where tests/harness/test_unwind_ruby.sh stops it) and waits.
DEPTH = 24
# The C methods on the stack: MRI lists them in caller_locations, trec
# names them by their native frames.
C_METHODS = %w[sort_by each deflate].freeze
require "zlib" if ARGV[1]

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

  # The script's own view of its stack, innermost first, then deflate on
  # the same line: "label<TAB>path<TAB>line<TAB>entered from C (0/1)".
  def dump_stack
    File.write(@stack_file, stack_rows(caller_locations(0))); Zlib::Deflate.deflate("trec" * 64) # @leaf dump_stack
    sleep 1 while true # @leaf dump_stack
  end

  # A frame is entered from C (a C-level call of rb_vm_exec runs it) when
  # its caller is a C method, or when it is the outermost.
  def stack_rows(locs)
    rows = []
    locs.each_with_index do |l, i|
      next if C_METHODS.include?(l.label)
      up = locs[i + 1]
      entry = up.nil? || C_METHODS.include?(up.label) ? 1 : 0
      rows << [l.label, l.path, l.lineno, entry].join("\t")
    end
    rows.join("\n") + "\n"
  end
end

def main(seconds, stack_file)
  deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
  Worker.new(DEPTH, stack_file).run(deadline) # @calls main->run
end

main(Float(ARGV[0] || "2"), ARGV[1]) # @calls <main>->main
